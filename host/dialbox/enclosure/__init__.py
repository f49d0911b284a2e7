"""The printable enclosure of a controller, generated from its board profile.

- parts.py: the part dimensions (SAMPLE dimensions: measure your parts), one table;
- mechanical.json: where each board's parts go (the profiles hold pins, not positions);
- layout.py: pure geometry: the shell, every cut-out, boss and keep-out block, computed from
  the profile, mechanical.json and parts.py (no CAD import: tests and the drift check use it);
- model.py: the two printable solids built from the layout (build123d, the `hardware` extra);
- render.py: headless PNG pictures (matplotlib) and the manifest docs/build/enclosure.json.
"""
