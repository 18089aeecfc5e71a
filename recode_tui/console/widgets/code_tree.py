"""The code tree: one line per node, status by icon and colour, the current path open.

Labels are updated in place and finished subtrees are collapsed (the path to
the current node stays open), so the cost of an event does not grow with the
size of the run.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agent.runtime import events as ev
from agent.runtime.tree import CodeTree, Node, NodeStatus
from recode_tui.console.widgets.search import Match

STATUS_ICONS: dict[NodeStatus, tuple[str, str]] = {
    NodeStatus.PENDING: ("·", "dim"),
    NodeStatus.RUNNING: ("●", "bold yellow"),
    NodeStatus.AWAITING_LLM: ("◆", "bold magenta"),
    NodeStatus.COMPLETED: ("✓", "green"),
    NodeStatus.ERROR: ("✗", "bold red"),
    NodeStatus.SKIP: ("⊘", "dim"),
}


def node_label(node: Node, current: bool = False) -> Text:
    icon, style = STATUS_ICONS[node.status]
    if node.status is NodeStatus.AWAITING_LLM and node.children:
        icon = "◇"  # expanded: its children carry the work
    first, _, rest = node.code.partition("\n")
    label = Text()
    label.append("▸" if current else " ", "bold yellow")
    label.append(f"{icon} ", style)
    code_style = "bold yellow" if current else ("dim" if node.status is NodeStatus.PENDING else "")
    label.append(first, code_style)
    if rest:
        label.append(" …", "dim")
    return label


class CodeTreeView(Tree[str]):
    """The run's code tree; each tree node's data is the agent node id."""

    search_name = "Code tree"

    def __init__(self, code_tree: CodeTree, **kwargs) -> None:
        root = code_tree.root
        super().__init__(node_label(root), data=root.id, **kwargs)
        self.code_tree = code_tree
        self.guide_depth = 2
        self.auto_expand = True
        self.root.allow_expand = False
        self._items: dict[str, TreeNode[str]] = {root.id: self.root}
        self._open: set[str] = set()  # opened automatically (the current path)
        self.current_id: str | None = None
        self._held = False  # `show_node` put the cursor somewhere: the next automatic follow leaves it
        self._searched: list[TreeNode[str]] = []  # the nodes in reading order, as last searched

    def render_line(self, y: int) -> Strip:
        """A line too long for the pane ends in `…` (the full code is in the node pane)."""
        strip = super().render_line(y)
        width = self.scrollable_content_region.width  # the scrollbar's column is not the line's
        scroll_x, scroll_y = self.scroll_offset
        item = self.get_node_at_line(y + scroll_y)
        if item is None or width < 2:
            return strip
        depth, parent = 0, item.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        if depth * self.guide_depth + self.get_label_width(item) <= scroll_x + width:
            return strip
        last = strip.crop(width - 1, width)
        style = next((segment.style for segment in last), None)
        return Strip.join([strip.crop(0, width - 1), Strip([Segment("…", style)], 1)])

    def item(self, node_id: str) -> TreeNode[str] | None:
        return self._items.get(node_id)

    def _relabel(self, node_id: str) -> None:
        item = self._items.get(node_id)
        node = self.code_tree.nodes.get(node_id)
        if item is not None and node is not None:
            label = node_label(node, node_id == self.current_id)
            if label != item.label:  # most events leave their node's line as it was: no repaint
                item.set_label(label)

    def apply(self, events: Iterable[ev.Event]) -> None:
        """Bring the tree up to date with a batch of agent events."""
        touched: set[str] = set()
        current = self.current_id
        for event in events:
            if event.node_id is None:
                continue
            if isinstance(event, ev.LLMAnswered):
                self._add_tree_children(event.node_id, event.child_ids)
            elif isinstance(event, ev.NodeStarted):
                self._add_started(event.node_id)
                current = event.node_id
            touched.add(event.node_id)
        if current != self.current_id:
            previous, self.current_id = self.current_id, current
            if previous is not None:
                touched.add(previous)
            if current is not None:
                self._open_path(current)
        for node_id in touched:
            self._relabel(node_id)

    def _add_tree_children(self, parent_id: str, child_ids: Iterable[str]) -> None:
        item = self._items.get(parent_id)
        if item is None:
            return
        for child_id in child_ids:
            if child_id in self._items:
                continue
            node = self.code_tree.nodes[child_id]
            self._items[child_id] = item.add(node_label(node), data=child_id, allow_expand=False)
        if item.children:
            item.allow_expand = True
            if not item.is_expanded:
                item.expand()
            self._open.add(parent_id)

    def _add_started(self, node_id: str) -> None:
        """A node that starts is drawn even when no answer announced it as a child (an agent that
        adds its turns itself): under its parent, after the siblings already drawn."""
        if node_id in self._items:
            return
        node = self.code_tree.nodes.get(node_id)
        if node is None or node.parent is None:
            return
        self._add_started(node.parent.id)
        self._add_tree_children(node.parent.id, [node_id])

    def _open_path(self, node_id: str) -> None:
        """Open the ancestors of the current node; collapse what was open for an earlier one."""
        node = self.code_tree.nodes.get(node_id)
        if node is None:
            return
        path = {n.id for n in self.code_tree.path_to(node)}
        for old in self._open - path:
            item = self._items.get(old)
            if item is not None and item.is_expanded:
                item.collapse()
        for ancestor in path:
            item = self._items.get(ancestor)
            if item is not None and item.children and not item.is_expanded:
                item.expand()
        self._open = {n for n in path if self._items.get(n) is not None and self._items[n].children}

    def follow(self, force: bool = False) -> None:
        """Move the cursor to the current node and scroll it into view, now: the stop that called it
        shows the node under the cursor in the same frame (not the old one, then the new one a frame later).

        Once after `show_node` the stop that follows leaves the cursor where it was put;
        `force` (the person's `f`) always moves it.
        """
        if self._held and not force:
            self._held = False
            return
        self._held = False
        if self.current_id is None:
            return
        item = self._items.get(self.current_id)
        if item is None:
            return
        self.put_cursor(item)

    def put_cursor(self, item: TreeNode[str]) -> None:
        """The cursor on `item`, in view. A row that now holds another node (a finished subtree folded
        under the cursor) moves no cursor line, so Tree says nothing: say it, and the node pane follows."""
        self.lay_out_lines()
        line = self.cursor_line
        self.move_cursor(item)
        if self.cursor_line == line:
            self.post_message(Tree.NodeHighlighted(item))
        self.scroll_to_node(item, animate=False)

    def lay_out_lines(self) -> None:
        """Number the tree's lines now. Tree numbers them lazily, when they are next read (at its
        idle, or its next frame), so a node added or opened since has no line yet to put the cursor on;
        `last_line` reads them."""
        self.last_line  # noqa: B018 - read for its effect: the lines are built

    def show_node(self, node_id: str) -> bool:
        """Open the way to a node and put the cursor on it (`tui --at NODE`); False if there is none."""
        node = self.code_tree.nodes.get(node_id)
        if node is None:
            return False
        for ancestor in self.code_tree.path_to(node):
            item = self._items.get(ancestor.id)
            if item is not None and item.children and not item.is_expanded:
                item.expand()
        item = self._items.get(node_id)
        if item is None:
            return False
        self._held = True

        self.call_after_refresh(self.put_cursor, item)
        return True

    def take_focus(self) -> bool:
        self.focus()
        return True

    # -- search (`/`): one line per node, in reading order, collapsed ones included ------------

    def _in_order(self) -> list[TreeNode[str]]:
        items: list[TreeNode[str]] = []
        stack = [self.root]
        while stack:
            item = stack.pop()
            items.append(item)
            stack.extend(reversed(item.children))
        return items

    def search_lines(self) -> Sequence[str]:
        self._searched = self._in_order()
        return [" ".join(self.code_tree.nodes[item.data].code.split()) if item.data in self.code_tree.nodes else ""
                for item in self._searched]

    def search_origin(self) -> int:
        cursor = self.cursor_node
        return next((i for i, item in enumerate(self._searched) if item is cursor), 0)

    def show_match(self, matches: Sequence[Match], current: Match | None) -> None:
        """Open the matched node's ancestors and put the cursor on it."""
        if current is None or current.line >= len(self._searched):
            return
        item = self._searched[current.line]
        parent = item.parent
        while parent is not None:
            if not parent.is_expanded:
                parent.expand()
            parent = parent.parent

        self.call_after_refresh(self.put_cursor, item)
