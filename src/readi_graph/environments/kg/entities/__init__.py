"""Names and topic entities: labels, resolution of given names, linking names found in the
question.
"""
