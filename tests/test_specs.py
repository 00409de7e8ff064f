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


@pytest.mark.parametrize("text", ["", "openai:", "Open AI", ":x", "rules:  "])
def test_a_spec_that_is_not_kind_or_kind_colon_argument_says_how_to_write_one(text):
    with pytest.raises(SpecError, match="KIND or KIND:ARGUMENT"):
        parse_spec(text)


@pytest.mark.parametrize("text", ["gpt-4", "nli:foo", "presence", "extractive"])
def test_a_spec_that_names_no_judge_lists_the_judges(text):
    # the parser reads the form only; the judge registry says what is a judge
    from spanproof.graders.judges import check_judge_spec

    parse_spec(text)
    with pytest.raises(SpecError, match=r"not a judge\. Judges are: .*openai:<model>.*rules"):
        check_judge_spec(text)


@pytest.mark.parametrize("text", ["openai", "scripted", "rules:extra", "blind:x"])
def test_a_judge_spec_with_a_missing_or_extra_argument_says_how_to_write_it(text):
    from spanproof.graders.judges import check_judge_spec

    with pytest.raises(SpecError, match="needs an argument|takes no argument"):
        check_judge_spec(text)


def test_missing_key_says_how_to_set_it():
    with pytest.raises(SpecError, match="OPENAI_API_KEY"):
        EndpointSettings().resolved()
