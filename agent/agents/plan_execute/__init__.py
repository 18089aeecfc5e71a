"""Plan-and-Execute: planner, executor and replanner roles over a JSON plan of dependent steps."""


