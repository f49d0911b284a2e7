"""Trial of the Gods as a companion game (issue 15, in progress): the players keep the
physical game; the console runs the Olympics, fights, public tracks, the clock and the
end-game rankings. Not registered yet: its pure rules modules land first."""
