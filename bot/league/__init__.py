"""The group's league: per-match statistics from the action logs, and skill ratings."""
