"""Where a record came from: every run, gate run and verdict carries this.

spanproof version, the git commit of the checked-out project (when there is one), the
host and runner, the CI job (from configurable environment variables), the sanitiser
version, and whatever judge/model/prompt hashes the caller adds. With a shared database
this is how a weekly report tells one CI runner's figures from another's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import subprocess
from typing import Any

from pydantic import BaseModel, Field

from spanproof.core.versions import SANITISER_VERSION

# First variable that is set names the CI job. Override with a comma-separated list in
# $SPANPROOF_CI_JOB_VARS (e.g. "MY_CI_PIPELINE,MY_CI_JOB").
CI_JOB_VARS_ENV = "SPANPROOF_CI_JOB_VARS"
DEFAULT_CI_JOB_VARS = (
    "CI_JOB_ID",  # GitLab
    "GITHUB_RUN_ID",  # GitHub Actions
    "BUILDKITE_JOB_ID",
    "CIRCLE_WORKFLOW_JOB_ID",
    "BUILD_ID",  # Jenkins, Google Cloud Build
    "BUILD_BUILDID",  # Azure Pipelines
)
# A runner's name: $SPANPROOF_RUNNER when set, else the host name.
RUNNER_ENV = "SPANPROOF_RUNNER"
COMMIT_VARS = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "GIT_COMMIT")
# The branch being built: the first of these that is set, else the checkout's branch.
# $SPANPROOF_BRANCH names it when nothing else can (a detached checkout in a CI job).
BRANCH_VARS = (
    "SPANPROOF_BRANCH",
    "GITHUB_HEAD_REF",  # GitHub Actions, pull requests: the source branch
    "GITHUB_REF_NAME",
    "CI_COMMIT_REF_NAME",  # GitLab
    "BUILDKITE_BRANCH",
    "CIRCLE_BRANCH",
    "BRANCH_NAME",  # Jenkins multibranch
    "GIT_BRANCH",  # Jenkins git plugin ("origin/main")
    "BUILD_SOURCEBRANCHNAME",  # Azure Pipelines
)
UNVERSIONED = "unversioned"


class Provenance(BaseModel):
    spanproof_version: str
    git_commit: str | None = None
    git_branch: str | None = None
    host: str
    runner: str
    ci_job: str | None = None  # "GITHUB_RUN_ID=123"
    sanitiser_version: str = UNVERSIONED
    home: str | None = None
    pid: int | None = None
    judges: list[str] = Field(default_factory=list)
    model: str | None = None
    model_ids: dict[str, str] = Field(default_factory=dict)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    # Set on records copied in by `spanproof store migrate`: the home they came from. The
    # other fields then describe the machine that copied them, not the one that made them.
    imported_from: str | None = None

    @property
    def prompt_version(self) -> str | None:
        """One short hash over every prompt hash: the key to group runs by prompt version."""
        if not self.prompt_hashes:
            return None
        blob = json.dumps(self.prompt_hashes, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


@functools.cache
def spanproof_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("spanproof")
    except PackageNotFoundError:
        return "unknown"


@functools.cache
def git_commit(cwd: str | None = None) -> str | None:
    """HEAD of the git checkout the command runs in (the project being gated), if any."""
    for var in COMMIT_VARS:
        if os.environ.get(var):
            return os.environ[var].strip()[:64]
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd or os.getcwd(), capture_output=True,
            text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and len(sha) >= 7 else None


def git_branch(cwd: str | None = None) -> str | None:
    """The branch being gated: a CI variable (BRANCH_VARS), else the checkout's current branch;
    None for a detached checkout or no checkout at all."""
    for var in BRANCH_VARS:
        value = os.environ.get(var, "").strip()
        if value:
            return value.removeprefix("refs/heads/").removeprefix("origin/")[:255]
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=cwd or os.getcwd(),
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    name = out.stdout.strip()
    return name[:255] if out.returncode == 0 and name and name != "HEAD" else None


def ci_job() -> str | None:
    names = os.environ.get(CI_JOB_VARS_ENV)
    for var in [v.strip() for v in names.split(",")] if names else DEFAULT_CI_JOB_VARS:
        value = os.environ.get(var, "").strip() if var else ""
        if value:
            return f"{var}={value}"[:255]
    return None


def sanitiser_version() -> str:
    """The sanitiser's version (``spanproof.core.versions``, a leaf: the store never imports the agent)."""
    return SANITISER_VERSION


def current(**extra: Any) -> Provenance:
    host = socket.gethostname()
    return Provenance(
        spanproof_version=spanproof_version(),
        git_commit=git_commit(),
        git_branch=git_branch(),
        host=host,
        runner=os.environ.get(RUNNER_ENV, "").strip() or host,
        ci_job=ci_job(),
        sanitiser_version=sanitiser_version(),
        pid=os.getpid(),
        **extra,
    )
