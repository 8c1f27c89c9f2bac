"""The running board: configuration, the engine loop, systemd notify, the control socket."""
