"""Training the recognizer's networks (the train extra: torch and Ultralytics).

Nothing here downloads. Ultralytics asks DNS whether it is online as it loads unless
YOLO_OFFLINE is set, so this package sets it: import it before Ultralytics.
"""

import os

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "True")
