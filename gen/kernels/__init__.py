"""Each cipher's data flow, written once per slicing strategy against the IR."""
