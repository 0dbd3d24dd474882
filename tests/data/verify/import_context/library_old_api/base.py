"""What every attack of the library shares."""

GAIN = 0.5
