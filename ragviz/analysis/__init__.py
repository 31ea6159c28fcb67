"""What people look at, free of Streamlit, in rooms by feature."""

__all__: list[str] = []
