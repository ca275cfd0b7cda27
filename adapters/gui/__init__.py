"""`engine-gui`: a web GUI that leaves all thinking to the engine."""
