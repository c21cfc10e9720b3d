"""Where MILA's `diplomacy.utils` keeps what is also here (`shadowjudge.utils.export`)."""
