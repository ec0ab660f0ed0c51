"""A small, deterministic knowledge base of four documents, for tests across the project."""

from __future__ import annotations

from pathlib import Path

from haiku_tui.store import KnowledgeBase

DOCUMENTS = {
    "solar-panels.md": """# Solar panels

## How panels make electricity

Solar panels are made of photovoltaic cells that turn sunlight into direct current electricity.
Each silicon cell produces about half a volt, so cells are wired in series to reach a useful voltage.

An inverter converts the direct current from the panels into alternating current for the house.
Most home systems use one string inverter, while microinverters sit behind each panel.

## Efficiency

Typical residential panels convert between 18 and 22 percent of sunlight into electricity.
Panel efficiency drops slightly as the cells get hotter, by roughly 0.4 percent per degree.

## Winter and snow

Solar panels still work in winter because they need light, not heat.
Snow on the panels blocks light, but it usually slides off tilted panels within a day or two.
""",
    "sourdough-bread.md": """# Sourdough bread

## The starter

A sourdough starter is a culture of wild yeast and lactic acid bacteria living in flour and water.
Feed the starter once a day with equal weights of flour and water when it lives on the counter.
A starter kept in the refrigerator only needs feeding once a week.

## Flour

Bread flour with 12 to 14 percent protein gives sourdough a strong, chewy crumb.
Adding ten percent whole wheat or rye flour makes the starter more active and the flavour deeper.

## Baking

Bake sourdough in a preheated Dutch oven at 250 degrees Celsius with the lid on for twenty minutes.
Remove the lid and bake another twenty minutes until the crust is deep brown.
""",
    "bicycle-maintenance.md": """# Bicycle maintenance

## Chain care

Oil the bicycle chain every 300 kilometres, or after every ride in the rain.
Wipe the excess oil off the chain, because oily chains collect grit that wears the gears.

## Brakes

Adjust rim brakes by turning the barrel adjuster until the pads grip the rim with a firm lever.
Replace brake pads when the grooves in the rubber have worn away.

## Tyres

Check tyre pressure every week; road tyres usually need between 80 and 100 psi.
""",
    "tea-brewing.md": """# Tea brewing

## Green tea

Green tea should be brewed with water at about 80 degrees Celsius.
Steep green tea for two to three minutes, or it turns bitter.

## Black tea

Black tea needs freshly boiled water at 100 degrees Celsius.
Steep black tea for three to five minutes, depending on how strong you like it.

## Storage

Store tea leaves in an airtight tin away from light, heat and strong smells.
""",
}


def write_documents(folder: Path) -> Path:
    """Write the four Markdown documents into ``folder`` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in DOCUMENTS.items():
        (folder / name).write_text(body, encoding="utf-8")
    return folder


def build_small_kb(path: Path | str) -> KnowledgeBase:
    """Ingest the four documents into a new knowledge base at ``path`` and return it open."""
    path = Path(path)
    docs = write_documents(path.parent / f"{path.stem}-docs")
    kb = KnowledgeBase.open(str(path))
    kb.add([docs])
    return kb


def make_old(path: Path | str) -> None:
    """Give a knowledge base built today the layout of one built before the index version was recorded:
    no version column, and the chunk ids version 1 gave."""
    import pyarrow as pa

    from haiku_tui.store.ingest import chunk_id
    from haiku_tui.store.tables import CHUNKS, DOCUMENTS
    from haiku_tui.store.tables import INDEX_VERSION_COLUMN, UNVERSIONED

    kb = KnowledgeBase.open(str(path))
    kb.storage.table(DOCUMENTS).drop_columns([INDEX_VERSION_COLUMN])
    data = kb.storage.table(CHUNKS).to_arrow().drop_columns([INDEX_VERSION_COLUMN])
    ids = [chunk_id(r["document_id"], r["content_hash"], r["position"], UNVERSIONED) for r in data.to_pylist()]
    data = data.set_column(data.schema.get_field_index("id"), "id", pa.array(ids, pa.string()))
    kb.storage.overwrite(CHUNKS, data)
    kb.storage.refresh_index()
    kb.close()
