"""Generation fidelity: how faithfully a generated image shows the board it should."""
