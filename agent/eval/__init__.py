"""Many runs at once: evaluation plans and reports, compare, failure groups, fairness."""
