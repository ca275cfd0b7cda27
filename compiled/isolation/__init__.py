"""Knight Isolation (three players) compiled: the rule and evaluation kernels and the three searches."""
