import pytest

from spanproof.core.specs import EndpointSettings, SpecError, parse_spec


@pytest.mark.parametrize(
    "text,kind,name",
    [
        ("rules", "rules", ""),
        ("blind", "blind", ""),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("scripted:/tmp/x.json", "scripted", "/tmp/x.json"),
        ("openai:org/model:7b", "openai", "org/model:7b"),
    ],
)
def test_parse_spec(text, kind, name):
    spec = parse_spec(text)
    assert (spec.kind, spec.name) == (kind, name)
    assert str(spec) == text


@pytest.mark.parametrize("text", ["", "gpt-4", "openai:", "nli:foo"])
def test_bad_spec_says_what_to_use(text):
    with pytest.raises(SpecError, match="openai:<model>"):
        parse_spec(text)


def test_missing_key_says_how_to_set_it():
    with pytest.raises(SpecError, match="OPENAI_API_KEY"):
        EndpointSettings().resolved()
