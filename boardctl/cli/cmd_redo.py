from boardctl.cli.verbs import add_target_options, sender

HELP = "put back what undo took back"
add_arguments = add_target_options
run = sender({"op": "redo"})
