"""What people would say: the judge's and people's labels paired per audited example, PPI++ and its intervals, the planner."""

__all__: list[str] = []
