"""One chat message: routing, the plugin's commands, the status, recall and the request form."""
