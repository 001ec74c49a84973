"""What the Cat hosts the plugin with: the settings, the Cat's LLM, the plugin's lifecycle."""
