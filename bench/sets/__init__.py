"""Question sets: retrieval and answer questions with the documents and phrases that answer them, and
claim/citation pairs for the support check."""
