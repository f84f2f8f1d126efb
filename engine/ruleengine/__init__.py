"""The rule engine: rule schema, compiler, loader, the durable-rules session, the reference
evaluator, derived facts, rule tests and the routing of facts to rules."""
