"""The evidence every KG strategy's answer step is shown: the chains a walk holds, which of them
fit the cap, written as trees and read back.
"""
