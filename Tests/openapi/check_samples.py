#!/usr/bin/env python3
"""Holds JSON samples of the API's types to the schemas of the OpenAPI document, field for field.

    python3 check_samples.py openapi.yaml < samples.json

The input is a list of entries, each with a `name`, a `schema` (a JSON pointer into the document) and either
`cases` (the values of an enumeration) or a `sample`, whether it is `complete` and whether it is a `request`. Every
object a schema lists properties for is closed: a sample's field the schema does not list is a disagreement. A
complete sample sets every optional field, so it must also hold every property its schemas list. Any other sample
leaves every optional field unset, so it must hold what its schemas require; and what a response holds then is
what the server always sends, which its schemas must require. Prints one line per disagreement and exits 1 if there
is any.

OpenAPI 3.0 schemas are not quite JSON Schema (`nullable`); openapi-schema-validator's OAS30Validator is jsonschema's
validator for them.
"""

import json
import sys

import yaml
from openapi_schema_validator import OAS30Validator, oas30_format_checker


def resolve(document, pointer):
    node = document
    for part in pointer.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def inline(document, node):
    """`node` with every `$ref` replaced by what it refers to (the document's schemas are not recursive)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return inline(document, resolve(document, node["$ref"]))
        return {key: inline(document, value) for key, value in node.items()}
    if isinstance(node, list):
        return [inline(document, value) for value in node]
    return node


def close(schema, complete):
    """`schema` with its `allOf` merged into one object and every object that lists properties closed to others;
    for a complete sample, each of them required."""
    schema = dict(schema)
    if "allOf" in schema:
        parts = schema.pop("allOf")
        schema.setdefault("type", "object")
        schema["properties"] = {name: sub for part in parts for name, sub in part.get("properties", {}).items()}
        schema["required"] = [name for part in parts for name in part.get("required", [])]
    if "properties" in schema:
        schema["properties"] = {name: close(sub, complete) for name, sub in schema["properties"].items()}
        if not isinstance(schema.get("additionalProperties"), dict):
            schema["additionalProperties"] = False
        if complete:
            schema["required"] = list(schema["properties"])
    if isinstance(schema.get("additionalProperties"), dict):
        schema["additionalProperties"] = close(schema["additionalProperties"], complete)
    if isinstance(schema.get("items"), dict):
        schema["items"] = close(schema["items"], complete)
    for key in ("oneOf", "anyOf"):
        if key in schema:
            schema[key] = [close(sub, complete) for sub in schema[key]]
    return schema


def always_sent(schema, sample, where, found):
    """Each field of `sample`, a response with every optional field unset, that `schema` does not require."""
    if isinstance(sample, dict) and "properties" in schema:
        for key, value in sample.items():
            if key in schema["properties"]:
                if key not in schema.get("required", []):
                    found.append(f"at {where or 'the top'}: '{key}' is always sent, but not required")
                always_sent(schema["properties"][key], value, f"{where}/{key}".lstrip("/"), found)
    elif isinstance(sample, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, value in sample.items():
            always_sent(schema["additionalProperties"], value, f"{where}/{key}".lstrip("/"), found)
    elif isinstance(sample, list) and isinstance(schema.get("items"), dict):
        for index, value in enumerate(sample):
            always_sent(schema["items"], value, f"{where}/{index}".lstrip("/"), found)


def main() -> int:
    document = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
    disagreements = []
    for entry in json.load(sys.stdin):
        name, schema = entry["name"], inline(document, resolve(document, entry["schema"]))
        if "cases" in entry:
            if set(schema.get("enum", [])) != set(entry["cases"]):
                disagreements.append(f"{name}: the document lists {sorted(schema.get('enum', []))}, the type {sorted(entry['cases'])}")
            continue
        closed = close(schema, entry["complete"])
        validator = OAS30Validator(closed, format_checker=oas30_format_checker)
        for error in sorted(validator.iter_errors(entry["sample"]), key=lambda error: list(map(str, error.absolute_path))):
            where = "/".join(map(str, error.absolute_path)) or "the top"
            disagreements.append(f"{name} at {where}: {error.message}")
        if not entry["complete"] and not entry.get("request", False):
            found = []
            always_sent(closed, entry["sample"], "", found)
            disagreements += [f"{name} {line}" for line in found]
    print("\n".join(disagreements))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
