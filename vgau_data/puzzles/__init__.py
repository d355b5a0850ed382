"""The puzzle families, one package each (``base`` says what a family gives); ``vgau_data.registry`` lists them."""
