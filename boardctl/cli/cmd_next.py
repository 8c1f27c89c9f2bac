from boardctl.cli.verbs import add_target_options, sender

HELP = "advance the guided game to its next phase"
add_arguments = add_target_options
run = sender({"op": "next"})
