"""The journal's notices by name: the same name in the engine's status (``boardctl status``)
and as a field of :class:`boardctl.view.ViewExtra`.

A leaf module, so that a CLI verb can tell a status with a notice without loading the view's
dataclasses: the damage recovered (:mod:`boardctl.game.integrity`) and the journal that cannot
be opened (:mod:`boardctl.service.fault`).
"""

DAMAGE_KEY = "journal_damage"
FAULT_KEY = "journal_fault"
