"""The type stubs shipped in the wheel describe the extension that ships with them."""

import ast
import pathlib

import regula
from regula import _regula

STUBS = pathlib.Path(regula.__file__).with_name("_regula.pyi")


def public(names):
    return {name for name in names if not name.startswith("_")}


def test_stubs_are_installed_with_py_typed():
    assert STUBS.is_file()
    assert STUBS.with_name("py.typed").is_file()


def test_every_class_and_member_matches_the_extension():
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    stubbed_classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    stubbed_functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    runtime = {name for name in public(dir(_regula)) if isinstance(getattr(_regula, name), type)}
    assert set(stubbed_classes) == runtime
    assert stubbed_functions == {"algorithms", "build_info"}
    for name, node in stubbed_classes.items():
        members = {
            item.name
            for item in node.body
            if isinstance(item, ast.FunctionDef) and not item.name.startswith("_")
        }
        assert members == public(dir(getattr(_regula, name))), name
