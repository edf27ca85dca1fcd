"""M2LC — Yu et al. 2021/2023, "Multi-label feature selection: a local causal structure learning
approach" (IEEE Trans. Neural Netw. Learn. Syst. 34(6):3044–3057, doi:10.1109/TNNLS.2021.3111288).

**Not implemented, on purpose.** No code by the authors is public, and the description that could
be found is not complete enough to implement the method without inventing it. What is available:

* the abstract: M2LC "formulates multilabel feature selection as a local causal structure learning
  problem", learns "the local causal structure of each class label", and "consists of two novel
  error-correction subroutines to correct those false discoveries" caused by label–label
  correlations;
* the Ca-MCF paper's related work (``ca-mcf-paper.tex``): the same, in one sentence each, and
  that M2LC treats features and labels as equally weighted nodes.

What an implementation would need and is missing:

1. the local structure learner used per label (which PC/MB discovery algorithm — e.g. an
   HITON-PC/MMPC-style PC search — and in which order candidates are admitted and removed);
2. the conditional-independence test, its statistic and significance level, and the bound on the
   conditioning-set size;
3. the two error-correction subroutines: their triggers, the tests they run, and what they add
   back or remove;
4. how the per-label structures are merged into one feature subset (union? common/specific
   features?), and whether labels are used as conditioning variables for each other;
5. the published parameter values.

Without these, any "M2LC" here would be a different method under M2LC's name, so none is
registered. If the paper's full text (its algorithm boxes) becomes available, implement it here as
a :class:`camcf.baselines._base.SubsetSelector`.
"""
