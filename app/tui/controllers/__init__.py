"""What the app does for one concern, talking to the app only through a small host protocol."""
