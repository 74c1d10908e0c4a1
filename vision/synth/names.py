"""The scene generator's names that the command line offers: its layouts and its dataset
targets.

A module of its own, importing nothing, so ``kortbord dataset``'s parser can list and check
them without loading the generator (OpenCV and numpy).
"""

LAYOUTS = ("road", "sten", "skipbo", "hand", "scatter")  # the games' layouts a scene may show
TARGETS = ("cards", "corners", "cards+corners", "codes")  # what a dataset's YOLO labels mark
