# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第二个示例

# %% [markdown] lang="en"
# # A second sample

# %%
import coursekit

coursekit.set_language("{{LANG}}")
print(coursekit.get_language())
