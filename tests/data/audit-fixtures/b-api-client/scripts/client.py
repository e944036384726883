import os
import requests

key = os.environ["OPENAI_API_KEY"]
r = requests.post("https://api.openai.com/v1/responses", headers={"Authorization": f"Bearer {key}"}, json={"input": "hi"})
print(r.status_code)
