"""The plugin's REST routes: what each answers (`routes.py`); `endpoints.py` registers them."""
