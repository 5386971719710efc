"""The tables and columns beside the SQL prompt, from the schema files (`tui schema`).

Enter on a column (or a table) asks for its name in the editor; the highlighted node's
meaning shows underneath.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from tui.core.safe_text import plain
from tui.core.schema_doc import describe

OPEN = ("gpu_activities",)  # expanded at first; the others are one Enter away


@dataclass(frozen=True)
class SchemaItem:
    name: str  # what Enter inserts
    meaning: str  # shown under the tree


class SchemaBrowser(Vertical):
    DEFAULT_CSS = """
    SchemaBrowser { width: 38; border-left: vkey $foreground 20%; }
    SchemaBrowser > Tree { height: 1fr; padding: 0 0 0 1; }
    SchemaBrowser > #schema-meaning { height: 4; padding: 0 1; color: $text-muted; }
    """

    @dataclass
    class Insert(Message):
        """Put `text` into the SQL at the cursor."""

        text: str

    def compose(self) -> ComposeResult:
        tree: Tree[SchemaItem] = Tree("schema", id="schema-tree")
        tree.show_root = False
        tree.guide_depth = 2
        tables: dict[str, TreeNode[SchemaItem]] = {}
        for table, comment, column, dtype, column_comment in describe():
            if table not in tables:
                tables[table] = tree.root.add(
                    plain(table, "bold"), SchemaItem(table, comment or ""),
                    expand=table in OPEN)
            label = Text.assemble(plain(column), " ", plain(dtype.lower(), "dim"))
            tables[table].add_leaf(label, SchemaItem(column, column_comment or ""))
        yield tree
        yield Static("", id="schema-meaning")

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[SchemaItem]) -> None:
        item = event.node.data
        if item is not None:
            self.query_one("#schema-meaning", Static).update(plain(item.meaning))

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[SchemaItem]) -> None:
        event.stop()
        if event.node.data is not None and not event.node.allow_expand:
            self.post_message(self.Insert(event.node.data.name))
