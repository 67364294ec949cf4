"""The knob families, one package each; ``registry`` lists them."""
