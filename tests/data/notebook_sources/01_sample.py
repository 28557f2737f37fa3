# %% [markdown] lang="zh"
# # 示例课：容量账本
#
# **时间：** 5 分钟

# %% [markdown] lang="en"
# # Sample lesson: the capacity ledger
#
# **Time:** 5 minutes

# %%
import coursekit

coursekit.set_language("{{LANG}}")

# %% [markdown]
# $$\text{required} = \text{state} + \text{activations} + \text{reserve}$$

# %%
required_gib = 13.0 + 4.0 + 2.0
print(required_gib)

# %% [markdown] lang="zh"
# ## 练习 1
#
# 一张 24 GiB 的卡还剩多少余量？

# %% [markdown] lang="en"
# ## Exercise 1
#
# How much headroom does a 24 GiB device have left?

# %% tags=["learner"]
answer = ...

# %% tags=["solution"]
answer = 24.0 - required_gib
print(answer)

# %% [markdown] lang="zh" tags=["answer"]
# 余量是 5 GiB：24 - 19。

# %% [markdown] lang="en" tags=["answer"]
# The headroom is 5 GiB: 24 - 19.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我学到的：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - What I learned:
