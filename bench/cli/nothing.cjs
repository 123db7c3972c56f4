// The baseline's script: Node loading a main script that does nothing.
