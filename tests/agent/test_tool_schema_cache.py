"""The tools' JSON schemas, sent with every model turn, are built once per model class and
handed out as copies: the same schemas pydantic builds, and a caller's edit never reaches the
next caller."""

from __future__ import annotations

from spanproof.agent.record import Draft
from spanproof.agent.tools import tool_schemas

from spanproof.core import tool_schema
from spanproof.core.tool_schema import READ_TOOL_ARGS, json_schema_of


def test_each_schema_is_built_once_however_many_turns_ask(monkeypatch):
    built: list[str] = []
    for model in [*READ_TOOL_ARGS.values(), Draft]:
        original = model.model_json_schema

        def counting(*args, _original=original, _name=model.__name__, **kwargs):
            built.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(model, "model_json_schema", counting)
    tool_schema._schema_text.cache_clear()
    for _ in range(5):  # five model turns
        tool_schemas()
        Draft.tool_schema()
    assert sorted(built) == sorted(m.__name__ for m in [*READ_TOOL_ARGS.values(), Draft])
    tool_schema._schema_text.cache_clear()


def test_the_kept_schema_is_pydantics_and_each_caller_gets_its_own_copy():
    for model in [*READ_TOOL_ARGS.values(), Draft]:
        assert json_schema_of(model) == model.model_json_schema()
    first = tool_schemas()
    first[0]["function"]["parameters"]["properties"].clear()
    Draft.tool_schema()["function"]["parameters"]["planted"] = True
    assert tool_schemas()[0]["function"]["parameters"]["properties"]
    assert "planted" not in Draft.tool_schema()["function"]["parameters"]
