package pipeline

// limitRules is the rules version from which a provider's limit makes the
// run wait.
const limitRules = 2

// fallbackRules is the rules version from which limits.on_limit fallback
// holds.
const fallbackRules = 3

// followRules is the rules version from which Spec.Follow holds.
const followRules = 4

// turnRules is the rules version from which the turn-fit rule holds.
const turnRules = 1

// queuedBudgetRules is the rules version from which a budget checkpoint
// that waited for its turn is asked afresh, with its own figures.
const queuedBudgetRules = 5
