"""The patrol: a declared suite run on a schedule, its history, baseline and textfile export."""
