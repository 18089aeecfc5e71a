"""Plan-and-Execute: planner, executor and replanner roles over a JSON plan of dependent steps."""

from agent.agents.plan_execute.agent import PlanExecuteAgent

__all__ = ["PlanExecuteAgent"]
