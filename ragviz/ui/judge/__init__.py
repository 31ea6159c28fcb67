"""The Judge page (judge versions: disagreements, few-shot picks, rubric, the exact prompt, compare, promote,
re-judge) and the team's judge every page that judges runs."""

__all__: list[str] = []
