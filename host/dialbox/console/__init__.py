"""The console: a table that plays many games in turn, chosen from its controllers
(docs/host.md, "The console")."""
