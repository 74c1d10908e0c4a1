"""Where the project's shared assets lie beside a checkout (``../shared``): the public-domain
decks and the labelled real photos. A user's clone has no such folder; what uses it takes
its path as an option and skips, saying so, when it is absent.

A module of its own, importing nothing heavy, so the command line can name these paths in
its help without loading OpenCV.
"""

from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DECKS = SHARED / "decks"  # one folder of card PNGs per deck design
REAL_PHOTOS = SHARED / "realphotos" / "edje-cards"  # train/ and test/ with Pascal VOC boxes
