from boardctl.cli.verbs import add_target_options, sender

HELP = "take back the last entry"
add_arguments = add_target_options
run = sender({"op": "undo"})
