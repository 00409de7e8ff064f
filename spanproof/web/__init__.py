"""The web environment: egress (the only way out), the offline corpus, snapshots, search and sanitising. Below the agent; imports only spanproof.core."""
