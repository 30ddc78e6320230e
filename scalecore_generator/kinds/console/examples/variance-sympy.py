# Var(q·k) = d_k, derived with sympy (loaded from this site when imported)
from sympy import Sum, simplify, sqrt, symbols
from sympy.stats import E, Normal, variance

# One term of q . k: q_i and k_i independent, mean 0, variance 1 (the projections' scale).
q, k = Normal("q", 0, 1), Normal("k", 0, 1)
print("E[q k]      =", simplify(E(q * k)))
print("Var(q k)    =", simplify(variance(q * k)), "  (E[q^2] E[k^2] - E[q k]^2)")

# q . k sums d_k such independent terms, so their variances add up.
i, d_k = symbols("i d_k", integer=True, positive=True)
var_dot = Sum(variance(q * k), (i, 1, d_k)).doit()
print("Var(q . k)  =", var_dot)
print("Var(q . k / sqrt(d_k)) =", simplify(var_dot / sqrt(d_k) ** 2))

