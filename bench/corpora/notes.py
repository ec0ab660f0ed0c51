"""Write the notes benchmark corpus: eight short personal notes (kitchen, garden, bike, home), written by hand
for ``bench/sets/local_questions.py`` on 2026-12-07, the way someone keeps notes for themselves. Three are
about sourdough, so the right note has to be told from its neighbours.

    python -m bench.corpora.notes OUT_DIR
"""

from __future__ import annotations

from pathlib import Path

NOTES = {
    "sourdough-feeding": """# Feeding the sourdough starter

The starter lives in the tall jar on the counter. Feed it once a day when it is kept warm.

To feed it, stir it down and throw away all but 50 g. Then add 50 g of flour and 50 g of water
and mix until no dry flour is left. I use half white bread flour and half whole wheat; the
water should be lukewarm, about 27 °C.

Put a rubber band around the jar at the level of the fresh starter. At about 24 °C it doubles
and peaks 4 to 6 hours after a feed, and that is the moment to use it for a levain.

When I am away, the jar goes into the fridge after a feed, and one feed a week keeps it alive.
Take it out a day before baking and give it two feeds at room temperature first.
""",
    "sourdough-bake-day": """# Bake day schedule for the country loaf

Evening before: mix the levain with 20 g starter, 40 g flour and 40 g water, and leave it overnight.

Morning: mix 450 g flour with 350 g water and leave it to rest for one hour before adding the levain
and 10 g of salt. Bulk fermentation takes 4 to 5 hours in the kitchen. During the first two hours,
do a set of stretch and folds every 30 minutes, four sets in all.

Shape the dough into a tight ball, put it seam side up in the floured basket and let it rest
in the fridge overnight, 12 to 16 hours. The cold makes it easy to score and gives the crust blisters.

Heat the oven with the Dutch oven inside to 250 °C for 45 minutes. Bake 20 minutes with the lid on,
then take the lid off, turn down to 220 °C and bake another 25 minutes until it is deep brown.
Let the loaf cool for at least an hour before cutting it, or the crumb will be gummy.
""",
    "sourdough-troubleshooting": """# When the sourdough goes wrong

Grey liquid on top of the starter is hooch. It means the starter is hungry and has used up its
flour; it is not dead. Pour it off for a milder loaf or stir it back in for a more sour one, then feed.

A starter that barely rises usually needs a warmer spot or a few feeds with whole rye flour.
A smell of nail polish remover is another sign of hunger: feed it twice a day for a couple of days.

If the loaf spreads flat in the oven, the dough was probably overproofed. Use the poke test before
baking: press a floured finger in about 1 cm. If the dent springs back slowly and not completely,
the dough is ready; if it stays, it has gone too far; if it springs back at once, give it more time.

Pink or orange streaks mean the starter has spoiled. Throw it all away and start again.
""",
    "bike-maintenance": """# Looking after the road bike

Tyres: 28 mm tyres, inflated to 5 to 5.5 bar for me at 72 kg; a little lower (4.5 bar) in the rain.
They lose pressure over a week, so check them before every ride with the track pump.

Chain: clean and lubricate it every 300 km, and always after a wet ride. Put one drop on each
roller while turning the pedals backwards, wait a few minutes, then wipe off the excess with a rag.
Too much oil only collects grit. Measure the chain with the checker every 1,000 km and replace it
at 0.5 % wear, before it wears out the cassette.

Brakes: the pads have grooves; when the grooves are gone the pads have to be replaced.
Squealing usually means oil on the rims, clean them with alcohol.

Once a year, before spring, the bike goes to the shop for a full service and new bar tape.
""",
    "houseplants": """# Houseplant care

Monstera (living room, by the big window): water it when the top 5 cm of soil are dry, about every
7 to 10 days in summer and every two to three weeks in winter. Wipe the leaves when they get dusty.

Fiddle leaf fig: it hates being moved. It dropped half its leaves the last time it changed rooms,
so leave it where it is and turn it a quarter turn each month so it grows straight.

Pothos (bathroom shelf): it copes with little light and forgets a missed watering. Cuttings root in
a glass of water in about two weeks.

Repot in spring only, one pot size up, with a chunky mix of two parts potting soil, one part bark
and one part perlite. Feed with half-strength liquid fertiliser once a month from April to September,
never in winter.
""",
    "home-network": """# Home network

The router's settings page is at 192.168.1.1; the admin password is in the blue notebook, not here.

If the internet stops working, first unplug the router for 30 seconds and plug it back in. Do not
hold the reset button: holding it for 10 seconds wipes every setting back to the factory defaults,
and the fibre login would have to be typed in again.

The guest Wi-Fi is called "Lantern-Guest". Its password changes on the first of every month and is
written on the card on the fridge.

The printer has the fixed address 192.168.1.50 so the laptops always find it. The NAS backs up the
photos every night at 2 a.m.
""",
    "tomato-seedlings": """# Growing tomatoes from seed

Sow the seeds indoors six to eight weeks before the last frost, 1 cm deep in small pots, and keep
them at about 21 °C until they come up, usually within a week. Give them as much light as possible,
or they grow long and weak.

When they have their first true leaves, move each seedling into its own bigger pot, burying the stem
up to the leaves: tomatoes grow roots along the buried stem.

Before planting out, harden them off over 7 to 10 days: outside for a few hours at first, then longer,
then overnight. Plant them out only when the nights stay above 10 °C.

For cordon varieties, pinch out the side shoots that grow between the main stem and the leaves every
week. Bush varieties are left alone. Water deeply and regularly; uneven watering causes blossom end rot.
""",
    "pour-over-coffee": """# Pour-over coffee (V60)

For one mug: 15 g of coffee to 250 g of water. Grind it medium-fine, a little finer than sea salt.

Heat the water to 93 °C, just off the boil, and rinse the paper filter first so the coffee does not
taste of paper.

Pour about 40 g of water to wet all the grounds and wait 30 seconds while it blooms. Then pour the rest
in slow circles in two or three parts. The whole brew should be done in about 3 minutes.

If it tastes sour, grind finer; if it tastes bitter or takes much longer than 3 minutes, grind coarser.
""",
}


def write_corpus(out: Path) -> list[Path]:
    base = Path(out) / "notes"
    base.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in NOTES.items():
        path = base / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    from bench.corpora.stdlib import main

    main(__doc__, write_corpus)
