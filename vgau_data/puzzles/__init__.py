"""The six puzzle families, one module each; ``vgau_data.registry`` lists them."""
