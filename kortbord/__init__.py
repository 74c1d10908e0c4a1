"""Kortbord: the command line that ties the referee, vision and web layers together."""
