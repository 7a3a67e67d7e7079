"""Hooks: commands the user configures to run at points of the context lifecycle."""
