from scalecore.experiment import run, sentence_tokens
from scalecore.guards import GuardSet

table = load_table("demo")  # this site's embeddings for the demo corpus
tokens = sentence_tokens("the old man looked at the light of the sun")
for guards in ("none", "norm+init+scale"):
    result = run(table, tokens, seed=0, guards=GuardSet.parse(guards), d_k=16)
    print(guards, round(result.measures.score_spread, 3), round(result.measures.gradient, 4))
