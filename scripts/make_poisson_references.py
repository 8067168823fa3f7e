#!/usr/bin/env python3
"""Prints the exact (Garwood) 95% intervals of Poisson rates that Tests/AccelEvaluationTests/
GroupReportTests.swift checks accelkit's PoissonInterval against: for k events in an exposure E,
[chi2.ppf(0.025, 2k) / 2E, chi2.ppf(0.975, 2k + 2) / 2E] (0 below for k = 0)."""
import scipy
from scipy.stats import chi2

print(f"# scipy {scipy.__version__}")
for k, e in [(0, 1.0), (1, 2.0), (5, 3.5), (46, 2.5), (200, 10.0)]:
    low = chi2.ppf(0.025, 2 * k) / 2 / e if k > 0 else 0.0
    high = chi2.ppf(0.975, 2 * k + 2) / 2 / e
    print(f"({k}, {e!r}, {float(low)!r}, {float(high)!r}),")
