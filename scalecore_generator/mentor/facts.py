"""The numbers the kinds baked, as the quote trees lay them out, and what the site says of each
corpus those numbers name."""

from __future__ import annotations


# the memo's name for a kind's facts: a new form when what is kept changes (round 7: the rows of records; round 12: the
# records in them, a layer's heads)
FACTS_FORM = "mentor-facts/3"


def facts(tree: dict, kinds: set[str]) -> dict:
    """The quote trees of ``kinds``: the same paths an author quotes with {{ baked: }}, so the
    mentor and the pages name a number the same way. Kept as a tree (a path's prefix is written
    once) with each value to 7 significant digits: the mentor shows three, and links to the
    baked file that holds the exact one."""

    def shrink(node):
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, float):
            return float(f"{node:.7g}")
        if isinstance(node, dict):
            return {key: shrink(value) for key, value in node.items()}
        if isinstance(node, (list, tuple)):
            if node and all(isinstance(value, dict) for value in node):
                # rows of records (a stack's layers: encoder/kjv/0/none/layers/2/stream_spread; a layer's heads:
                # multihead/kjv/0/8/none/per_head/2/measures/mean_row_max, the paths the page quotes): each row's
                # numbers and its records' (a head's measures), not its rows of weights
                rows = [prune(shrink(row)) for row in node]
                return rows if any(rows) else None
            # a row of weights, a token's favourites: not asked for
            return None if any(isinstance(value, (list, dict)) for value in node) or len(node) > 4 else \
                [shrink(value) for value in node]
        return node if isinstance(node, (int, str)) else None

    def prune(node):
        if isinstance(node, dict):
            kept = {key: prune(value) for key, value in node.items()}
            return {key: value for key, value in kept.items() if value not in (None, {}, [])}
        return node

    derived = getattr(tree, "derived", None)  # a LazyNamespace: from the memo when known
    return {kind: derived(kind, FACTS_FORM, lambda: prune(shrink(tree[kind]))) if derived
            else prune(shrink(tree[kind])) for kind in sorted(kinds) if kind in tree}


def corpora_words(counts: dict) -> list[dict]:
    """What the site says of each corpus a module's numbers name (``counts``: the quote tree's
    ``corpus`` node, name -> sentences, tokens, vocabulary): its title, description and source,
    from the corpus.toml shipped with the core when it is that corpus (same counts), so a reader's
    "the bible" or "the dictionary" can find kjv or wordnet (the mentor's query expansion, in
    mentor-core.js). A site's own corpus keeps its name and counts only."""
    import tomllib

    from scalecore.corpus import METADATA_FILE, SHIPPED

    out = []
    for name, count in sorted((counts or {}).items()):
        entry = {"name": name, "tokens": (count or {}).get("tokens")}
        file = SHIPPED / name / METADATA_FILE
        try:
            meta = tomllib.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
        except (OSError, ValueError):
            meta = {}
        if meta.get("counts", {}).get("tokens") == entry["tokens"]:
            entry.update({key: str(meta[key]) for key in ("title", "description", "source") if key in meta})
        out.append(entry)
    return out


def column_names(tables: list[dict], fact_tree: dict) -> dict:
    """What a baked panel's tables call its numbers: {kind: {measure: [column name]}}, for the rows of
    records a kind bakes (encoder/kjv/0/none/layers: each layer's attention_update_spread ...). A column
    names a measure when each of its cells in the rows a whole number heads (the row headed 3 shows the
    list's third record, as "After layer 3" does) is that measure's value as printed, in one list of
    records, and no other measure's fits every table that has the column: the table the reader sees
    ("Attention adds") names the measure as the page does."""

    def lists(node, out):
        if isinstance(node, dict):
            for value in node.values():
                lists(value, out)
        elif isinstance(node, list) and node and all(isinstance(row, dict) for row in node):
            out.append(node)
        return out

    def fits(text, value):
        try:
            shown = float(text.replace(",", ""))
        except ValueError:
            return False
        digits = text.split("e")[0].split(".")
        step = 10.0 ** -(len(digits[1]) if len(digits) > 1 else 0)
        if "e" in text.lower():
            step *= 10.0 ** int(text.lower().split("e")[1])
        return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - shown) <= 0.5 * step * 1.0001

    found: dict[str, dict[str, set]] = {}
    for table in tables:
        records = lists(fact_tree.get(table["kind"], {}), [])
        rows = [row for row in table["rows"] if row and row[0].strip().isdigit()]
        if not records or not rows:
            continue
        for j, label in enumerate(table["columns"]):
            if not j or not label:
                continue
            cells = [(int(row[0]), row[j]) for row in rows if j < len(row) and row[j].strip()]
            if not cells:
                continue
            names = {name for record_list in records for name in record_list[0]
                     if all(0 < number <= len(record_list) and fits(text, record_list[number - 1].get(name))
                            for number, text in cells)}
            kept = found.setdefault(table["kind"], {})
            kept[label] = names if label not in kept else kept[label] & names
    out: dict[str, dict[str, list]] = {}
    for kind, labels in sorted(found.items()):
        for label, names in sorted(labels.items()):
            if len(names) == 1:
                out.setdefault(kind, {}).setdefault(next(iter(names)), []).append(label)
    return out
